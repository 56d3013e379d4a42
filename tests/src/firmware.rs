//! Firmware of a managed switch, written against the crates' public APIs only: a DWMAC
//! whose MDIO master reaches a Marvell switch and whose wire is the switch's CPU port.
//!
//! [`Firmware::bring_up`] starts the MAC (fixed link to the CPU port), probes and resets
//! the switch, puts the CPU port in EDSA mode, creates two VLANs, isolates two ports of the
//! first, adds a static address, traps LLDP to the CPU and enables link interrupts.
//! [`Firmware::poll`] is the main loop's body: the switch's interrupt, then smoltcp over
//! the tagged CPU port ([`DsaDevice`]), a TCP echo service, and an LLDP answer out of the
//! port each LLDP frame came from.

use std::fmt::Debug;

use hwtimer_core::Continuous;
use hwtimer_core::RegisterBus;
use mv88e6xxx_smi::atu::{AtuEntry, MacAddr};
use mv88e6xxx_smi::chip::{ChipId, Family};
use mv88e6xxx_smi::dsa::{Tag, TagFormat, TrapCode};
use mv88e6xxx_smi::irq::{G1Irq, G1IrqSet, PortSet};
use mv88e6xxx_smi::port::{EgressMode, FrameMode, PortState};
use mv88e6xxx_smi::stats::{HistogramMode, Mib, PortStats};
use mv88e6xxx_smi::vtu::{Dot1qMode, Member, VtuEntry};
use mv88e6xxx_smi::{Config, Switch};
use smoltcp::iface::{Config as IfaceConfig, Interface, SocketHandle, SocketSet, SocketStorage};
use smoltcp::socket::tcp;
use smoltcp::time::Instant;
use smoltcp::wire::{EthernetAddress, HardwareAddress, IpAddress, IpCidr, Ipv4Address};
use stmmac_coalesce::{
    Duplex, Dwmac as _, FrameFilter, Gmac3, Gmac3Mdio, LinkState, MacConfig, RxRing, Speed, TxRing,
};

use crate::dsa_device::{CpuPort, DsaDevice, DsaStats, Trapped};

/// LLDP's destination (nearest bridge) and EtherType (IEEE 802.1AB).
pub const LLDP_DA: [u8; 6] = [0x01, 0x80, 0xC2, 0x00, 0x00, 0x0E];
/// LLDP's EtherType.
pub const ETH_P_LLDP: u16 = 0x88CC;
/// The system name the firmware's LLDPDUs carry.
pub const SYSTEM_NAME: &[u8] = b"mv88e6xxx managed switch";

/// One VLAN of the switch: its VID, FID and untagged member ports (the CPU port is a
/// tagged member of every VLAN).
#[derive(Debug, Clone, Copy)]
pub struct Vlan {
    /// VID.
    pub vid: u16,
    /// Address database.
    pub fid: u16,
    /// Untagged member ports (bit per port); each gets this VID as its default.
    pub ports: u16,
}

/// What the firmware sets up.
#[derive(Debug, Clone)]
pub struct FwConfig {
    /// The switch's SMI address on the MAC's MDIO bus (indirect addressing).
    pub sw_addr: u8,
    /// The switch port wired to the MAC.
    pub cpu_port: u8,
    /// The user ports (bit per port).
    pub user_ports: u16,
    /// The MAC's CSR clock (the MDIO divider).
    pub csr_hz: u32,
    /// The firmware's MAC address.
    pub mac: [u8; 6],
    /// Its IPv4 address (/24), in the first VLAN.
    pub ip: [u8; 4],
    /// The VLANs; the first is the management VLAN smoltcp lives in.
    pub vlans: [Vlan; 2],
    /// Two ports that must not reach each other though they share a VLAN.
    pub isolate: (u8, u8),
    /// A static address: FID, MAC, port.
    pub static_fdb: (u16, [u8; 6], u8),
    /// The TCP echo service's port.
    pub tcp_port: u16,
    /// The CPU port's tags.
    pub format: TagFormat,
}

impl FwConfig {
    /// The board of the tests: the switch at SMI 0x10, CPU port 5, user ports 0–4; VLAN
    /// 10 (FID 1) on ports 0, 1, 2 with 0 and 2 kept apart, VLAN 20 (FID 2) on ports 3
    /// and 4; 02:00:00:00:00:77 static on port 1; the firmware at 10.0.10.1, TCP echo on 7;
    /// EDSA tags with Linux's EtherType on the CPU port.
    pub fn demo() -> Self {
        Self {
            sw_addr: 0x10,
            cpu_port: 5,
            user_ports: 0b1_1111,
            csr_hz: crate::switch_board::CSR_HZ,
            mac: [0x02, 0x00, 0x00, 0x00, 0x00, 0xF0],
            ip: [10, 0, 10, 1],
            vlans: [
                Vlan {
                    vid: 10,
                    fid: 1,
                    ports: 0b0_0111,
                },
                Vlan {
                    vid: 20,
                    fid: 2,
                    ports: 0b1_1000,
                },
            ],
            isolate: (0, 2),
            static_fdb: (1, [0x02, 0, 0, 0, 0, 0x77], 1),
            tcp_port: 7,
            format: TagFormat::EDSA,
        }
    }
}

/// A bring-up or service step that failed, with the driver's error.
#[derive(Debug)]
pub struct FwError {
    /// The step.
    pub step: &'static str,
    /// The driver's error, formatted.
    pub detail: String,
}

fn step<T, E: Debug>(what: &'static str, r: Result<T, E>) -> Result<T, FwError> {
    r.map_err(|e| FwError {
        step: what,
        detail: format!("{e:?}"),
    })
}

/// The firmware; see the [module docs](self).
pub struct Firmware<'a, B: RegisterBus<Word = u32>, C: Continuous + Copy> {
    mac: &'a Gmac3<B>,
    /// The switch driver (the MAC's MDIO master stays with it).
    pub sw: Switch<Gmac3Mdio<'a, B, C>, C>,
    /// The switch as probed.
    pub id: ChipId,
    /// MDIO frames of the bring-up (probe to the last setting).
    pub bring_up_frames: u64,
    cfg: FwConfig,
    io: CpuIo,
    iface: Interface,
    sockets: SocketSet<'static>,
    tcp: SocketHandle,
    mib: Mib,
    /// LLDP answers sent: (port, frame).
    pub lldp_answers: Vec<(u8, Vec<u8>)>,
    /// The link of each port as the firmware last saw it.
    pub links: [Option<bool>; 16],
    /// Link changes the interrupt reported: (port, up), oldest first.
    pub link_events: Vec<(u8, bool)>,
    /// Switch interrupts serviced.
    pub irqs: u64,
    /// Bytes the TCP echo service echoed.
    pub echoed: usize,
}

impl<'a, B: RegisterBus<Word = u32>, C: Continuous + Copy> Firmware<'a, B, C> {
    /// Bring the MAC and the switch up (see the [module docs](self)). `tx` and `rx` are the
    /// MAC's rings (not started), `clock` bounds every wait, `now` is the time for smoltcp.
    ///
    /// Errors: the first step that failed.
    pub fn bring_up(
        mac: &'a Gmac3<B>,
        clock: C,
        tx: TxRing,
        rx: RxRing,
        cfg: FwConfig,
        now: Instant,
    ) -> Result<Self, FwError> {
        let (mut tx, mut rx) = (tx, rx);
        // The MAC: our address, broadcast and every multicast (trapped management frames
        // keep their group address), a fixed 1000/full link to the CPU port.
        mac.init_mac(&MacConfig {
            address: cfg.mac,
            filter: FrameFilter {
                all_multicast: true,
                ..FrameFilter::default()
            },
        });
        step("TX ring start", tx.try_start(mac))?;
        step("RX ring start", rx.try_start(mac))?;
        mac.set_link(LinkState::up(Speed::M1000, Duplex::Full));

        let mdio = step("MDIO master", mac.mdio(clock, cfg.csr_hz))?;
        let (mut sw, id) = step(
            "switch probe",
            Switch::probe(mdio, clock, cfg.sw_addr, Family::Mv6085, Config::default()),
        )?;
        step("switch reset", sw.software_reset())?;
        let cpu = cfg.cpu_port;
        let format = cfg.format;
        // The CPU port's tags, as Linux's `mv88e6xxx_set_port_mode_edsa` / `_dsa` set them
        // (chip.c): EtherType DSA with its EtherType and EtherType egress, or DSA with the
        // egress left unmodified.
        match format {
            TagFormat::Edsa { ethertype } => {
                step(
                    "CPU frame mode",
                    sw.port_set_frame_mode(cpu, FrameMode::EtherTypeDsa),
                )?;
                step("CPU EtherType", sw.port_set_ether_type(cpu, ethertype))?;
                step(
                    "CPU egress mode",
                    sw.port_set_egress_mode(cpu, EgressMode::EtherTypeDsa),
                )?;
            }
            TagFormat::Dsa => {
                step(
                    "CPU frame mode",
                    sw.port_set_frame_mode(cpu, FrameMode::Dsa),
                )?;
                step(
                    "CPU egress mode",
                    sw.port_set_egress_mode(cpu, EgressMode::Unmodified),
                )?;
            }
        }
        step("CPU port", sw.set_cpu_port(cpu))?;

        // VLANs: user ports untagged with the VLAN as default, the CPU port tagged.
        for v in cfg.vlans {
            let mut e = VtuEntry::new(v.vid, v.fid).with_member(cpu, Member::Tagged);
            for p in ports_of(v.ports) {
                e = e.with_member(p, Member::Untagged);
                step("default VID", sw.port_set_default_vid(p, v.vid))?;
            }
            step("VTU load", sw.vtu_load(&e))?;
        }
        for p in ports_of(cfg.user_ports | 1 << cpu) {
            step(
                "802.1Q secure",
                sw.port_set_8021q_mode(p, Dot1qMode::Secure),
            )?;
        }
        // Isolation: each of the two ports' egress map without the other.
        let (a, b) = cfg.isolate;
        for (from, to) in [(a, b), (b, a)] {
            let map = step("VLAN map read", sw.port_vlan_map(from))?;
            step("VLAN map", sw.port_set_vlan_map(from, map & !(1 << to)))?;
        }
        // A static address.
        let (fid, addr, port) = cfg.static_fdb;
        step(
            "ATU load",
            sw.atu_load(&AtuEntry::new_static(fid, MacAddr::new(addr), 1 << port)),
        )?;
        // LLDP (01:80:C2:00:00:0E) to the CPU.
        step("Rsvd2CPU", sw.set_rsvd2cpu(1 << 0x0E, 0))?;
        // Link interrupts of the user ports, through the Global1 DEVICE source.
        step("link irq", sw.link_irq_enable(PortSet(cfg.user_ports)))?;
        step(
            "G1 irq",
            sw.g1_irq_enable(G1IrqSet::empty().with(G1Irq::Device)),
        )?;
        for p in ports_of(cfg.user_ports | 1 << cpu) {
            step("forwarding", sw.port_set_state(p, PortState::Forwarding))?;
        }
        let mib = step("MIB setup", Mib::setup(&mut sw, HistogramMode::RxTx))?;
        let bring_up_frames = sw.frames();

        let cpu_port = CpuPort {
            format,
            dev: 0,
            port: cpu,
            mgmt_vid: cfg.vlans[0].vid,
        };
        let mut io = CpuIo {
            port: cpu_port,
            scratch: vec![0u8; rx.max_frame()],
            untagged: vec![0u8; rx.max_frame()],
            tx,
            rx,
            trapped: Vec::new(),
            stats: DsaStats::default(),
        };
        let mut iface = Interface::new(
            IfaceConfig::new(HardwareAddress::Ethernet(EthernetAddress(cfg.mac))),
            &mut io.device(mac),
            now,
        );
        let [a0, a1, a2, a3] = cfg.ip;
        iface.update_ip_addrs(|addrs| {
            let _ = addrs.push(IpCidr::new(
                IpAddress::Ipv4(Ipv4Address::new(a0, a1, a2, a3)),
                24,
            ));
        });
        let storage: &'static mut [SocketStorage<'static>] =
            Box::leak(Box::new([SocketStorage::EMPTY]));
        let mut sockets = SocketSet::new(storage);
        let buf = || tcp::SocketBuffer::new(Vec::leak(vec![0u8; 2048]));
        let tcp = sockets.add(tcp::Socket::new(buf(), buf()));
        step(
            "TCP listen",
            sockets.get_mut::<tcp::Socket>(tcp).listen(cfg.tcp_port),
        )?;
        Ok(Self {
            mac,
            sw,
            id,
            bring_up_frames,
            cfg,
            io,
            iface,
            sockets,
            tcp,
            mib,
            lldp_answers: Vec::new(),
            links: [None; 16],
            link_events: Vec::new(),
            irqs: 0,
            echoed: 0,
        })
    }

    /// One pass of the main loop at `now`: the switch's interrupt if `irq` (its INTn line)
    /// is asserted, smoltcp, the echo service, LLDP answers. Returns the trapped frames
    /// received in this pass of the loop.
    ///
    /// Errors: a switch access of the interrupt service failed.
    pub fn poll(&mut self, now: Instant, irq: bool) -> Result<usize, FwError> {
        if irq {
            self.service_irq()?;
        }
        self.io.tx.reclaim();
        let first_new = self.io.trapped.len();
        self.iface
            .poll(now, &mut self.io.device(self.mac), &mut self.sockets);
        self.echo();
        // Answer each LLDP frame out of the port it came from, and only there.
        let answers: Vec<(u8, Vec<u8>)> = self.io.trapped[first_new..]
            .iter()
            .filter_map(|t| match t.tag {
                Tag::ToCpu {
                    port,
                    code: TrapCode::MgmtTrap,
                    ..
                } if t.frame.get(12..14) == Some(&ETH_P_LLDP.to_be_bytes()[..]) => {
                    Some((port, lldp_frame(self.cfg.mac, port)))
                }
                _ => None,
            })
            .collect();
        if !answers.is_empty() {
            let mut dev = self.io.device(self.mac);
            for (port, frame) in answers {
                if dev.send_from_cpu(now, port, &frame) {
                    self.lldp_answers.push((port, frame));
                }
            }
        }
        Ok(self.io.trapped.len() - first_new)
    }

    /// The switch's interrupt: the Global1 sources, then which ports' links changed, and
    /// their state now.
    fn service_irq(&mut self) -> Result<(), FwError> {
        self.irqs += 1;
        let pending = step("G1 irq status", self.sw.g1_irq_pending())?;
        if pending.contains(G1Irq::Device) {
            let changed = step("link irq source", self.sw.link_changed_ports())?;
            for p in 0..16u8 {
                if changed.contains(p) {
                    let st = step("link status", self.sw.port_link_status(p))?;
                    self.links[usize::from(p)] = Some(st.up);
                    self.link_events.push((p, st.up));
                }
            }
        }
        Ok(())
    }

    fn echo(&mut self) {
        let s = self.sockets.get_mut::<tcp::Socket>(self.tcp);
        if !s.is_open() {
            let _ = s.listen(self.cfg.tcp_port);
        }
        while s.can_recv() && s.can_send() {
            let mut chunk = [0u8; 256];
            let n = s.recv_slice(&mut chunk).unwrap_or(0);
            if n == 0 {
                break;
            }
            let sent = s.send_slice(&chunk[..n]).unwrap_or(0);
            self.echoed += sent;
        }
    }

    /// Port `port`'s MIB counters now.
    ///
    /// Errors: the statistics unit failed.
    pub fn port_stats(&mut self, port: u8) -> Result<PortStats, FwError> {
        step("MIB snapshot", self.mib.snapshot(&mut self.sw, port))
    }

    /// Every trapped frame received, oldest first.
    pub fn trapped(&self) -> &[Trapped] {
        &self.io.trapped
    }

    /// The CPU port device's counters.
    pub fn dsa_stats(&self) -> DsaStats {
        self.io.stats
    }

    /// The TCP echo service's socket state.
    pub fn tcp_state(&self) -> tcp::State {
        self.sockets.get::<tcp::Socket>(self.tcp).state()
    }
}

/// The MAC's rings and what the CPU port's device keeps between turns.
struct CpuIo {
    port: CpuPort,
    tx: TxRing,
    rx: RxRing,
    scratch: Vec<u8>,
    untagged: Vec<u8>,
    trapped: Vec<Trapped>,
    stats: DsaStats,
}

impl CpuIo {
    /// smoltcp's device for one turn, over `mac`'s rings.
    fn device<'d, B: RegisterBus<Word = u32>>(
        &'d mut self,
        mac: &'d Gmac3<B>,
    ) -> DsaDevice<
        'd,
        stmmac_coalesce::smoltcp::Device<
            'd,
            Gmac3<B>,
            stmmac_coalesce::NoTimer,
            stmmac_coalesce::Coherent,
        >,
    > {
        let inner = stmmac_coalesce::smoltcp::Device::new(
            mac,
            &mut self.tx,
            &mut self.rx,
            &mut self.scratch,
        );
        DsaDevice::new(
            inner,
            self.port,
            &mut self.untagged,
            &mut self.trapped,
            &mut self.stats,
        )
    }
}

/// The ports of a bitmap, ascending.
fn ports_of(map: u16) -> impl Iterator<Item = u8> {
    (0..16u8).filter(move |p| map & (1 << p) != 0)
}

/// An LLDPDU from `mac` for `port`: chassis ID (MAC), port ID (local name `port<n>`),
/// TTL 120 s, system name, end (IEEE 802.1AB TLVs 1, 2, 3, 5, 0).
pub fn lldp_frame(mac: [u8; 6], port: u8) -> Vec<u8> {
    let mut f = LLDP_DA.to_vec();
    f.extend_from_slice(&mac);
    f.extend_from_slice(&ETH_P_LLDP.to_be_bytes());
    let tlv = |f: &mut Vec<u8>, ty: u16, value: &[u8]| {
        let head = (ty << 9) | value.len() as u16;
        f.extend_from_slice(&head.to_be_bytes());
        f.extend_from_slice(value);
    };
    let mut chassis = vec![4u8];
    chassis.extend_from_slice(&mac);
    tlv(&mut f, 1, &chassis);
    let mut pid = vec![7u8];
    pid.extend_from_slice(format!("port{port}").as_bytes());
    tlv(&mut f, 2, &pid);
    tlv(&mut f, 3, &120u16.to_be_bytes());
    tlv(&mut f, 5, SYSTEM_NAME);
    tlv(&mut f, 0, &[]);
    f
}
