"""The environments (koikoi_v0, the Gymnasium env, the vector env): their shared contract,
episodes, rewards, options, observations and renders."""
