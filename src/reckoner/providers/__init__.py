"""Model providers: the one place the network to a model is touched, through official SDKs."""
