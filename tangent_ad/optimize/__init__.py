"""Optimization passes run on the derivative tree, to a fixed point."""
