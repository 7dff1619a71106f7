"""Figure builders: arrays and labels in, plotly Figures out. No computation of the lessons here."""
