//! Statistics: the per-port MIB counters, through the Global1 stats unit.
