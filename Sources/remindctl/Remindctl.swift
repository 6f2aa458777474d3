import ArgumentParser

@main
struct Remindctl: ParsableCommand {}
