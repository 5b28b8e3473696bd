"""What the user gives: scenario files, config.ini, units, NDB's parameters, thread layouts,
releases and their mechanisms, and the bounded loading of every input file."""
