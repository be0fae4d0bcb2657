//! Progress of long commands: drawn on standard error when it is a terminal (a
//! pseudo-terminal made by util-linux's `script`), and nothing of it when it is piped.
//! `ALKAID_PROGRESS_AFTER_MS=0` draws from the first batch, so a small file shows it.

use std::process::Command;

use super::{fixture, scratch, text};

/// `alkaid ARGS` on a pseudo-terminal: what it drew there (standard output and error).
pub(super) fn on_a_terminal(args: &[&str]) -> String {
    let quoted: Vec<String> = std::iter::once(env!("CARGO_BIN_EXE_alkaid"))
        .chain(args.iter().copied())
        .map(|arg| format!("'{}'", arg.replace('\'', r"'\''")))
        .collect();
    let run = Command::new("script")
        .args([
            "--quiet",
            "--return",
            "--command",
            &quoted.join(" "),
            "/dev/null",
        ])
        .env("ALKAID_PROGRESS_AFTER_MS", "0")
        .output()
        .expect("util-linux's script runs");
    let drawn = text(&run.stdout);
    assert!(run.status.success(), "{drawn}{}", text(&run.stderr));
    drawn
}

/// `alkaid ARGS` with standard error piped: what it wrote there.
fn piped(args: &[&str]) -> String {
    let run = Command::new(env!("CARGO_BIN_EXE_alkaid"))
        .args(args)
        .env("ALKAID_PROGRESS_AFTER_MS", "0")
        .output()
        .expect("the binary runs");
    assert!(run.status.success(), "{}", text(&run.stderr));
    text(&run.stderr)
}

#[test]
fn convert_and_validate_draw_progress_on_a_terminal_and_nothing_when_piped() {
    let dir = scratch("progress");
    let input = fixture("all_types.stream");
    let (output, again) = (dir.join("out.arrow"), dir.join("again.arrow"));
    let (output, again) = (output.to_str().unwrap(), again.to_str().unwrap());
    let drawn = on_a_terminal(&["convert", &input, output]);
    // Batches, rows and bytes done, and the rate.
    assert!(drawn.contains("converting: "), "{drawn:?}");
    assert!(
        drawn.contains(" batches, ") && drawn.contains(" rows, "),
        "{drawn:?}"
    );
    assert!(drawn.contains("/s)"), "{drawn:?}");
    let drawn = on_a_terminal(&["validate", output]);
    assert!(drawn.contains("validating: "), "{drawn:?}");
    assert!(
        drawn.contains("ok: file of"),
        "the answer follows: {drawn:?}"
    );

    assert_eq!(piped(&["convert", &input, again]), "");
    assert_eq!(piped(&["validate", again]), "");
}
