//! The `herald` binary: everything lives in the library; see `herald::cli`.

fn main() -> std::process::ExitCode {
    herald::runtime::allocator::configure();
    herald::cli::main()
}
