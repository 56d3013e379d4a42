//! The seed measurement (`min_delta` of the arch clockevent) on the model of QEMU's virt
//! machine.

mod proof;
