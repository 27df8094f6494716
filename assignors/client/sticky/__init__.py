"""The sticky and cooperative-sticky assignors: inputs, the constrained path, the general path."""
