//! Property tests: the IC rule against a reference, configuration checks never panic, the
//! rings keep their invariants under any sequence of operations, and no descriptor content
//! or register value makes the driver panic or deliver bytes it should not.

#[path = "../harness/mod.rs"]
mod harness;

/// Runs each generic property (`fn name<G: Fuzzed>(args) -> Result<(), TestCaseError>` in
/// the invoking module) on both generations, as `gmac3::name` and `qos::name`, each
/// argument drawn from its strategy.
macro_rules! prop_on_both {
    ($(fn $name:ident($($arg:ident in $strategy:expr),* $(,)?);)*) => {
        mod gmac3 {
            use super::*;
            proptest! {
                $(
                    #[test]
                    fn $name($($arg in $strategy),*) {
                        super::$name::<crate::harness::OnGmac3>($($arg),*)?;
                    }
                )*
            }
        }
        mod qos {
            use super::*;
            proptest! {
                $(
                    #[test]
                    fn $name($($arg in $strategy),*) {
                        super::$name::<crate::harness::OnQos>($($arg),*)?;
                    }
                )*
            }
        }
    };
}

mod rings;
