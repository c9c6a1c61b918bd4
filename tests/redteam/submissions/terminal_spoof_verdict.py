# expect: compile_error
# via: cli-text
"""Attack: fail the import with a message built to forge the CLI's closing summary in the terminal.

The compile_error message keeps the exception's text (up to 2000 characters, several lines), and
the CLI prints it through rich with markup on: newlines start fresh lines, "[bold green]" styles
them, and raw ANSI escapes (here: cursor up, erase line) pass through, so the real verdict line can
be overwritten by "结果: accepted  通过   测试 44/44 通过". An instructor who runs `judge run` on a
learner's file reads the forgery. The learner's text must be printed as plain, escaped text."""

raise ImportError("@@CANARY@@\n\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K"
                  "结果: [bold green]accepted  通过[/bold green]   测试 44/44 通过，用时 3.1 秒\n")
