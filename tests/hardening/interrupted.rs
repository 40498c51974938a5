//! Issue 37, item 9: `--output-file` interrupted by SIGINT or SIGTERM at any moment leaves
//! either the whole file or nothing, and no temporary file beside it, for `cmpx run` (the
//! in-memory path) and a streamed `cmpx pipe`.

use super::*;

/// Kills `cmd` after `delay` with `signal`, waits for it and its worker to go, and returns what
/// the output directory then holds besides the input.
fn interrupt(cmd: &mut Command, delay: Duration, signal: i32, dir: &Path) -> Vec<String> {
    // Its own process group, so the signal reaches the worker too, as Ctrl-C in a terminal does.
    cmd.process_group(0);
    let mut child = cmd.spawn().unwrap();
    std::thread::sleep(delay);
    // SAFETY: signalling the process group we just created.
    unsafe { libc::kill(-(child.id() as i32), signal) };
    let _ = child.wait();
    // A worker may outlive its parent by a moment: wait until nothing writes any more.
    std::thread::sleep(Duration::from_millis(300));
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "in.bin")
        .collect();
    names.sort();
    names
}

#[test]
fn interrupted_output_files_are_whole_or_absent() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    // 24 MiB of varied bytes: Base64 of it takes long enough to be interrupted mid-write.
    let mut data = Vec::with_capacity(24 << 20);
    let mut x: u32 = 1;
    while data.len() < 24 << 20 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        data.extend_from_slice(&x.to_le_bytes());
    }
    std::fs::write(dir.path().join("in.bin"), &data).unwrap();
    let whole_len = data.len().div_ceil(3) * 4;
    let mut seen_partial_run = false;
    for (i, delay_ms) in [30u64, 80, 150, 250, 400, 700].into_iter().enumerate() {
        for (signal, pipe) in [
            (libc::SIGTERM, false),
            (libc::SIGINT, true),
            (libc::SIGTERM, true),
        ] {
            let out = dir.path().join(format!("out-{i}-{signal}-{pipe}.b64"));
            let mut cmd = Command::new(bin());
            cmd.env("CMP_HOME", home.path())
                .env("HOME", home.path())
                .current_dir(dir.path())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            if pipe {
                cmd.args(["pipe", "base64-encoder", "--input", "@in.bin"]);
            } else {
                cmd.args(["run", "base64-encoder", "--input", "@in.bin"]);
            }
            cmd.arg("--output-file").arg(&out);
            let left = interrupt(
                &mut cmd,
                Duration::from_millis(delay_ms),
                signal,
                dir.path(),
            );
            for name in &left {
                let path = dir.path().join(name);
                assert!(
                    !name.starts_with(".cmpx-tmp-"),
                    "a temporary file was left: {name}"
                );
                let len = std::fs::metadata(&path).unwrap().len() as usize;
                assert_eq!(
                    len, whole_len,
                    "{name} is cut: {len} of {whole_len} bytes (killed after {delay_ms} ms)"
                );
                std::fs::remove_file(path).unwrap();
            }
            seen_partial_run |= left.is_empty();
        }
    }
    assert!(
        seen_partial_run,
        "at least one run was interrupted before it finished (else the test shows nothing)"
    );
}
