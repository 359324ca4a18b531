"""Linear online learners of streamlearn's own (not from a reproduced paper)."""
