//! Ports: state, frame and egress mode, the CPU port, forced link, RGMII delays, link status.
