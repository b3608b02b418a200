"""Figure code for the chapters, one module per chapter group."""
