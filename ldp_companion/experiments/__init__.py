"""Experiment grids of the chapters: loops over datasets, mechanisms, ε and runs that
return tidy DataFrames (one row per run), so the chapters only plot and compare."""
