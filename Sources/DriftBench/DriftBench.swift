@main enum DriftBench { static func main() {} }
