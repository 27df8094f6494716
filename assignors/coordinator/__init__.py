"""Group coordinators on simulated time: timers, consumption accounting, and one package per protocol or design."""
