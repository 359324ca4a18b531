"""Other libraries' learners behind the streamlearn interface: River and MOA (CapyMOA)."""
