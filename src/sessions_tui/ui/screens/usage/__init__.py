"""The Usage view: tokens and estimated cost over time, by agent, model or session, and a spawn tree's roll-up."""
