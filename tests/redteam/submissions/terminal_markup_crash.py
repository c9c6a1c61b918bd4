# expect: compile_error
# via: cli-text
"""Attack: an import error whose message is broken rich markup ("[/]" closing nothing).

Printed with markup on, it raises rich's MarkupError inside the CLI's report rendering: the learner's
text crashes the judge's front end (traceback, wrong exit status) instead of being shown."""

raise ImportError("@@CANARY@@ [/] [/nonsense] [link=javascript:alert(1)]click[/link]")
