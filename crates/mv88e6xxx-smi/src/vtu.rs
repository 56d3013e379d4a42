//! VLANs: the VLAN table unit (VTU), the spanning-tree unit (STU), per-port default VID and 802.1Q mode.
