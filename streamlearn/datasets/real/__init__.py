"""Streams over the real datasets of the four reproduced papers, one module per paper."""
