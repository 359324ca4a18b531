"""Series predictors of the Fast-ONS paper: ONS, fast ONS and OGD on tapped delay lines."""
