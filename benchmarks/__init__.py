"""Scripts that print what they measured (not tests); run each from the repository root as
`python -m benchmarks.<name>`, so they import the package, each other and the tests' fault harness
as packages."""
