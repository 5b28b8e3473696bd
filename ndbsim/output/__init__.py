"""What a run gives back: the result and its JSON/CSV, flat records, the phase table, the
Gantt chart, the description of what was simulated, and atomic writes."""
