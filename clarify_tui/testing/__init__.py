"""Stand-ins for testing and benchmarking agents offline: loopback HTTP servers speaking
the OpenAI and Tavily wire protocols (`loopback`), and a tiny world of one task per
protocol and a six-document corpus (`world`). The tests and the benchmarks share them;
nothing else in the package imports them."""
