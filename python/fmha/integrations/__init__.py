"""Optional integrations of fmha with other libraries (each imports its
library only when imported itself)."""
