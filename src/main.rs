fn main() {
    std::process::exit(cmpx::commands::main());
}
