"""Experimental parts of Tessera: the explicit level (`gluon`)."""
