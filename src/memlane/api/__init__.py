"""HTTP surfaces: one router per spec, one place that maps errors to each envelope."""
