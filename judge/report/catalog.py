"""The judge's own learner-facing texts, one catalogue keyed by message id, each in zh and en."""

from __future__ import annotations

from judge.report.i18n import Lang, Text

# id -> (zh, en); str.format fields are filled by say(). Problems' own texts: their tests (feedback.py).
MESSAGES: dict[str, tuple[str, str]] = {
    # verdict names and one-line summaries
    "verdict.accepted": ("通过", "accepted"),
    "verdict.wrong_answer": ("答案错误", "wrong answer"),
    "verdict.runtime_error": ("运行时错误", "runtime error"),
    "verdict.compile_error": ("导入失败（编译错误）", "import failed (compile error)"),
    "verdict.time_limit_exceeded": ("超时", "time limit exceeded"),
    "verdict.memory_limit_exceeded": ("超内存", "memory limit exceeded"),
    "verdict.output_limit_exceeded": ("输出超限", "output limit exceeded"),
    "verdict.internal_error": ("判题系统内部错误", "internal error of the judge"),
    "summary.accepted": ("全部测试通过", "All tests passed"),
    "summary.wrong_answer": ("有测试没有通过", "Some tests failed"),
    "summary.memory": (
        "超出内存限制：你的代码使用的内存超过了本题的上限 {memory} MiB",
        "Memory limit exceeded: your code used more than this exercise's limit of {memory} MiB",
    ),
    "summary.time": (
        "超出时间限制：本题整次判题（导入你的文件并运行全部测试）限时 {wall:g} 秒，你的代码没有在限时内完成"
        "（死循环，或计算太慢？）",
        "Time limit exceeded: this exercise allows {wall:g} s for the whole judgement (importing your "
        "file and running every test), and your code did not finish within it (an endless loop, or too slow?)",
    ),
    "summary.output": (
        "输出超出限制：你的代码打印了超过本题上限 {output} KiB 的内容",
        "Output limit exceeded: your code printed more than this exercise's limit of {output} KiB",
    ),
    "summary.runtime": (
        "运行时错误：你的程序意外结束了（{how}）",
        "Runtime error: your program ended unexpectedly ({how})",
    ),
    "how.signal": ("被信号 {signal} 终止", "killed by signal {signal}"),
    "how.exit": ("退出码 {code}", "exit code {code}"),
    "how.unknown": ("原因未知", "cause unknown"),
    "how.hidden": (
        "退出码和信号只在只跑公开测试时显示",
        "exit code and signal are shown only when running the public tests",
    ),
    # the learner's file did not import
    "import.time": (
        "你的文件没有在 {wall:g} 秒内完成导入（模块顶层有死循环或很慢的计算？），测试都没有运行",
        "Your file did not finish importing within {wall:g} s (an endless loop or slow work at its top "
        "level?); no test ran",
    ),
    "import.memory": (
        "导入你的文件时内存超过了本题的上限 {memory} MiB，测试都没有运行",
        "Importing your file used more than this exercise's limit of {memory} MiB; no test ran",
    ),
    "import.output": (
        "导入你的文件时打印了超过 {output} KiB 的内容，测试都没有运行",
        "Importing your file printed more than {output} KiB; no test ran",
    ),
    "import.lost": (
        "你的程序在导入时就结束了（{how}），测试都没有运行",
        "Your program ended while your file was being imported ({how}); no test ran",
    ),
    "import.failed": ("你的文件没能导入：{error}{where}", "Your file failed to import: {error}{where}"),
    "import.uncompilable": (
        "Python 无法编译你的文件：嵌套太深或字面量太大（{what}）",
        "Python cannot compile your file: it is nested too deeply or holds a literal too large ({what})",
    ),
    "import.hint.syntax": (
        "提示：修正这一行的语法（括号、冒号、缩进、引号），然后再运行。",
        "hint: fix the syntax on this line (brackets, colons, indentation, quotes), then run again.",
    ),
    "import.hint.module": (
        "提示：判题环境只有 torch、numpy 和 Python 标准库；去掉这个导入。",
        "hint: the judge offers only torch, numpy and Python's standard library; remove this import.",
    ),
    "import.hint.did_you_mean": (
        "提示：没有 {name} 这个模块，你是不是想写 {close}？",
        "hint: there is no module {name}; did you mean {close}?",
    ),
    "import.hint.one_file": (
        "提示：判题只拿你的一个文件：{name} 如果是你自己的辅助模块，把它的内容放进这个文件里；"
        "判题环境只有 torch、numpy 和 Python 标准库。",
        "hint: the exercise takes one file: if {name} is a helper module of yours, put its code in this file; "
        "the judge offers only torch, numpy and Python's standard library.",
    ),
    "import.hint.runtime": (
        "提示：这一行在导入你的文件时（模块顶层、注册算子时）抛出了异常；先让它能用 python 直接运行。",
        "hint: this line raised while your file was imported (top level, op registration); "
        "make the file run with plain python first.",
    ),
    "import.hint.complex": (
        "提示：把嵌套很深的表达式拆成几步。",
        "hint: split the deeply nested expression into steps.",
    ),
    "where": ("（{file} 第 {line} 行）", " ({file} line {line})"),
    # per-test messages
    # The worker's guard writes its refusals in English (they are raised inside the learner's code); the checker
    # puts this phrase into Chinese for the zh side.
    "worker.refused": ("判题环境不允许这样做", "not allowed in the judge's worker"),
    "case.raised": ("你的代码抛出了 {error}{where}", "Your code raised {error}{where}"),
    "case.probe_raised": ("{hint}：{error}{where}", "{hint}: {error}{where}"),
    "case.tampered": (
        "你的代码改动了判题程序所依赖的代码（torch、判题器或内置函数的绑定，或留下了未退出的 torch 模式），"
        "之后的结果都不予采信",
        "Your code changed code the judge relies on (bindings of torch, of the judge or of builtins, "
        "or a torch mode left on); no later result is trusted",
    ),
    "case.lost": (
        "你的程序在这个测试进行中结束或失去响应（见判题结果的说明）",
        "Your program ended or stopped responding during this test (see the verdict's summary)",
    ),
    "case.not_run": ("没有运行：你的文件没能导入", "Not run: your file did not import"),
    "case.mismatch": ("结果与预期不符", "The result is not what was expected"),
    "case.skipped": ("跳过", "skipped"),
    "case.skipped_because": ("跳过：{reason}", "skipped: {reason}"),
    "case.failed": ("失败", "failed"),
    "case.unreported": ("这个测试没有报告结果", "This test reported no result"),
    # the terminal
    "cli.starter_created": (
        "已从起始代码创建 {path}：在里面完成 TODO，然后再运行 python practice/judge.py {id}。\n"
        "题面：python practice/judge.py {id} --statement（或 judge serve 后打开 http://127.0.0.1:8000/problems/{id}）。\n"
        "现在先判一次起始代码，看看有哪些测试（它不会通过）。",
        "Created {path} from the starter code: finish its TODOs, then run "
        "python practice/judge.py {id} again.\nThe statement: python practice/judge.py {id} --statement (or judge "
        "serve, then open http://127.0.0.1:8000/problems/{id}).\nJudging the starter now, to show the tests "
        "(it will not pass).",
    ),
    "cli.judging": ("判题 {id}（{title}）：{path}", "Judging {id} ({title}): {path}"),
    "cli.judging_public": (
        "判题 {id}（{title}）：{path}，只运行公开测试",
        "Judging {id} ({title}): {path}, public tests only",
    ),
    "cli.running": ("运行 {total} 个测试 ", "running {total} tests "),
    "cli.running_hidden": ("隐藏测试运行中", "hidden tests running"),
    "cli.result": ("结果: ", "Result: "),
    "cli.counts": (
        "   测试 {passed}/{total} 通过，用时 {seconds:.1f} 秒",
        "   {passed}/{total} tests passed in {seconds:.1f} s",
    ),
    "cli.not_run": ("  {n} 个测试没有运行", "  {n} tests not run"),
    "cli.none_ran": ("  测试都没有运行：你的文件要先能导入", "  No test ran: your file must import first"),
    "cli.same_message": ("  …另有 {n} 个测试是同样的结果", "  … and {n} more with the same message"),
    "cli.more": ("  …另有 {n} 个没通过的测试未列出", "  … and {n} more failing tests not listed"),
    "cli.output": ("  你的代码的输出（末尾）:", "  What your code printed (its end):"),
    "cli.fix": ("  改好 {path} 后再运行一次。", "  Fix {path} and run again."),
    "cli.fix_statement": (
        "  题面：python practice/judge.py {id} --statement（或 judge serve 后打开 http://127.0.0.1:8000/problems/{id}）",
        "  The statement: python practice/judge.py {id} --statement (or judge serve, then open "
        "http://127.0.0.1:8000/problems/{id})",
    ),
    "cli.statement_footer": (
        "判题：python practice/judge.py {id}；只跑公开测试：加 --public；在浏览器里：judge serve 后打开 "
        "http://127.0.0.1:8000/problems/{id}",
        "Judge: python practice/judge.py {id}; public tests only: add --public; in the browser: judge serve, then "
        "open http://127.0.0.1:8000/problems/{id}",
    ),
    "cli.next": (
        "下一题：{id}（{title}）：python practice/judge.py {id} --statement 看题面，python practice/judge.py {id} 开始",
        "Next: exercise {id} ({title}): python practice/judge.py {id} --statement for its statement, "
        "python practice/judge.py {id} to start",
    ),
    "cli.all_done": ("这是最后一题：全部练习都做完了。", "That was the last exercise: every exercise is done."),
    "cli.tier_layers_missing": (
        "注意：{tier} 这一层（tier）运行时没有这些隔离层：{layers}（judge doctor 说明原因）。",
        "Note: the {tier} tier ran without these isolation layers: {layers} (judge doctor says why).",
    ),
    "cli.layers_missing": (
        "注意：本机没有这些隔离层：{layers}（运行 judge doctor 查看原因）。判题结果不受影响，"
        "但你的代码受到的限制更少。",
        "Note: this machine lacks these isolation layers: {layers} (run judge doctor to see why). "
        "Verdicts are unaffected, but your code runs with fewer restrictions.",
    ),
    "cli.internal": ("判题系统内部错误：{what}", "internal error of the judge: {what}"),
    "cli.error": ("错误：{message}", "error: {message}"),
    "cli.give_exercise": ("请给出题号（见 --list）", "give an exercise number (see --list)"),
    "list.not_started": ("还没开始", "not started"),
    "list.not_judged": ("{file}：还没判过", "{file}: not judged yet"),
    "list.judged": ("{file}：{verdict}（{tests}）", "{file}: {verdict} ({tests})"),
    "list.public_tests": ("公开测试", "public tests"),
    "list.all_tests": ("全部测试", "all tests"),
    "list.edited": ("，之后改过", ", edited since"),
    "list.done": ("已完成（{day} 通过全部测试）", "done (all tests passed on {day})"),
    "list.done_count": ("已完成 {done}/{total} 题", "{done} of {total} exercises done"),
    # refusals: nothing was judged
    "usage.no_file": ("找不到文件：{path}", "no such file: {path}"),
    "usage.is_dir": (
        "{path} 是一个目录，不是文件：请给出你的 .py 文件",
        "{path} is a directory, not a file: give your .py file",
    ),
    "usage.unknown_problem": ("没有这道题：'{id}'（已有：{known}）", "unknown problem '{id}' (known: {known})"),
    "usage.bad_mode": ("mode 只能是 'submit' 或 'run'，不是 {mode}", "mode must be 'submit' or 'run', not {mode}"),
    "source.too_big": (
        "文件有 {size} 字节，上限是 {limit} 字节",
        "the file is {size} bytes; the limit is {limit} bytes",
    ),
    "source.not_utf8": (
        "文件不是 UTF-8 文本（第 {line} 行，第 {at} 个字节）：没有编码声明的文件，Python 按 UTF-8 读，也会拒绝它。"
        "{save}",
        "the file is not UTF-8 text (line {line}, byte {at}): Python reads a file without a coding line as UTF-8 "
        "and would refuse it too. {save}",
    ),
    "source.surrogate": (
        "文本里有单独的代理字符（第 {at} 个字符，U+{code:04X}），不是有效的 Unicode；请另存为 UTF-8",
        "the text holds a lone surrogate (character {at}, U+{code:04X}), which is not valid Unicode; save it as UTF-8",
    ),
    "source.empty": ("文件是空的；先写好你的解答", "the file is empty; write your solution first"),
    "source.nul": ("文件里有 NUL 字节；它不是 Python 源代码", "the file contains NUL bytes; it is not Python source"),
    # faults of the judge
    "internal_error": (
        "判题系统内部错误（不是你的代码的问题），请重试或报告给我们",
        "Internal error of the judge (not a problem with your code): try again or report it to us",
    ),
    "internal_error.problem": (
        "判题系统内部错误（题目文件有问题），请报告给我们",
        "Internal error of the judge (the exercise's files are broken): please report it to us",
    ),
    # -- integrity --
    # -- learner loop: CLI, daemon, source --
    "list.row": ("{id}  {title}（{difficulty}）  [{state}]", "{id}  {title}  ({difficulty})  [{state}]"),
    "list.easy": ("简单", "easy"),
    "list.medium": ("中等", "medium"),
    "list.hard": ("困难", "hard"),
    "usage.unreadable": ("无法读取文件 {path}：{why}", "cannot read {path}: {why}"),
    "usage.os_error": ("无法访问 {path}：{why}", "cannot access {path}: {why}"),
    "extras.missing": (
        "{what} 需要可选依赖 {extra}（缺少 {packages}）：在仓库目录里运行 pip install -e '.[{extra}]'",
        "{what} needs the optional {extra} packages ({packages} missing): run pip install -e '.[{extra}]' in the "
        "repository",
    ),
    "daemon.replaced": (
        "常驻判题进程已过期（{why}），换一个新的：这一次要冷启动，慢一些。",
        "The warm local judge was out of date ({why}) and is being replaced: this run starts cold, so it is slower.",
    ),
    "daemon.idle_ended": (
        "常驻判题进程闲置 {idle} 后已自行结束，这次先重新启动它（慢几秒）；"
        "想让它等得更久，可设置 PRACTICE_DAEMON_IDLE=<秒数>",
        "the warm local judge ended by itself after {idle} idle; this run starts it again (a few seconds "
        "slower); set PRACTICE_DAEMON_IDLE=<seconds> to keep it longer",
    ),
    "daemon.lost": (
        "常驻判题进程在这次判题中途结束了；改在本进程里判题（慢一些）",
        "the warm local judge ended during this run; judging in this process instead (slower)",
    ),
    "daemon.no_start": (
        "常驻判题进程没能启动；改在本进程里判题（用 --no-daemon 或 PRACTICE_DAEMON=0 可以不再尝试）",
        "the warm local judge could not start; judging in this process instead (--no-daemon or "
        "PRACTICE_DAEMON=0 stops trying)",
    ),
    "daemon.status": (
        "常驻判题进程 {pid}：题目 {problems}，judge {judge}，torch {torch}；{busy} 个判题进行中，"
        "已空闲 {idle:g} 秒（空闲 {limit:g} 秒后结束）；套接字 {socket}",
        "warm local judge {pid}: problems {problems}, judge {judge}, torch {torch}; {busy} judging, idle for "
        "{idle:g} s (ends after {limit:g} s idle); socket {socket}",
    ),
    "daemon.changing": (
        "常驻判题进程刚启动就过时了（判题系统或题目的文件还在改动？）；改在本进程里判题",
        "the warm local judge was out of date as soon as it started (are the judge's or the exercise's files "
        "still being edited?); judging in this process instead",
    ),
    "daemon.none": ("没有正在运行的常驻判题进程", "no warm local judge is running"),
    "daemon.stopped": ("已结束 {n} 个常驻判题进程", "stopped {n} warm local judge(s)"),
    "time.stuck_at": (
        "时间用完时你的代码正在运行第 {line} 行（{function} 中）：{code}",
        "your code was running line {line} (in {function}) when the time ran out: {code}",
    ),
    "case.time_limit": (
        "时间到：本题整次判题限时 {wall:g} 秒，时间用完时正在运行这个测试（死循环，或计算太慢？）",
        "time limit reached: this exercise allows {wall:g} s for the whole judgement, and this test was running "
        "when it ran out (an endless loop, or too slow?)",
    ),
    "case.after_time_limit": ("没有运行：之前已经达到时间限制", "not run: the time limit was reached earlier"),
    "compare.not_tensor": ("得到的是 {got}，不是张量", "got {got}, not a tensor"),
    "compare.of": ("形状 {shape}，dtype {dtype}", "shape {shape}, dtype {dtype}"),
    "compare.shape": ("形状是 {got}，应为 {want}", "the shape is {got}; it should be {want}"),
    "compare.dtype": ("dtype 是 {got}，应为 {want}", "the dtype is {got}; it should be {want}"),
    "compare.tol": ("|得到 − 应为| ≤ {atol:g} + {rtol:g}·|应为|", "|got − expected| ≤ {atol:g} + {rtol:g}·|expected|"),
    "compare.tol_max": (
        "|得到 − 应为| ≤ {atol:g} + {rtol:g}·max|应为|",
        "|got − expected| ≤ {atol:g} + {rtol:g}·max|expected|",
    ),
    "compare.tol_by": ("|得到 − 应为| ≤ {atol:g} + {rtol:g}·{scale}", "|got − expected| ≤ {atol:g} + {rtol:g}·{scale}"),
    "compare.nan": (
        "数值不对（{head}）：{total} 个元素中有 {count} 个是 NaN，第一个在 {at}（应为 {want}）",
        "wrong values ({head}): {count} of {total} elements are NaN, the first at {at} (expected {want})",
    ),
    "compare.values": (
        "数值不对（{head}）：{total} 个元素中有 {bad} 个超出容差 {tol}，第一个在 {first}（得到 {first_got}，"
        "应为 {first_want}），最大误差 {err} 在 {worst}（得到 {worst_got}，应为 {worst_want}）",
        "wrong values ({head}): {bad} of {total} elements are outside the tolerance {tol}, the first at {first} "
        "(got {first_got}, expected {first_want}); the largest error is {err}, at {worst} (got {worst_got}, "
        "expected {worst_want})",
    ),
    "compare.values_at": (
        "数值不对（{head}）：{total} 个元素中有 {bad} 个超出容差 {tol}，最大误差 {err} 在 {worst}，也是第一个不符的位置"
        "（得到 {worst_got}，应为 {worst_want}）",
        "wrong values ({head}): {bad} of {total} elements are outside the tolerance {tol}; the largest error is "
        "{err}, at {worst}, which is also the first element off (got {worst_got}, expected {worst_want})",
    ),
    "source.save_utf8": (
        "请在编辑器里把文件另存为 UTF-8（VS Code：点状态栏右下角的编码 → “通过编码保存” → UTF-8；"
        "记事本：“另存为” → 编码选 UTF-8），或在第一行写明文件真正的编码，例如 # -*- coding: gbk -*-",
        "Save it as UTF-8 in your editor (VS Code: click the encoding in the status bar → Save with Encoding → "
        "UTF-8; Notepad: Save As → Encoding: UTF-8), or name its real encoding on the first line, e.g. "
        "# -*- coding: gbk -*-",
    ),
    "source.not_declared": (
        "文件开头声明了编码 {encoding}，但第 {line} 行（第 {at} 个字节）不是 {encoding} 文本，Python 也会拒绝它。"
        "请把文件另存为 UTF-8，并删掉那行编码声明",
        "the file declares the encoding {encoding}, but line {line} (byte {at}) is not {encoding} text, so Python "
        "would refuse it too. Save the file as UTF-8 and delete the coding line",
    ),
    "source.unknown_encoding": (
        "文件开头声明的编码 {encoding} 不是 Python 认识的编码，Python 会拒绝运行它。"
        "请把文件另存为 UTF-8，并删掉那行编码声明（或改成正确的名字，例如 gbk）",
        "the file declares the encoding {encoding}, which Python does not know, so Python would refuse to run it. "
        "Save the file as UTF-8 and delete the coding line (or correct the name, e.g. gbk)",
    ),
    "source.bom_conflict": (
        "文件以 UTF-8 的 BOM 开头，却声明了编码 {encoding}，两者矛盾，Python 会拒绝它。"
        "请删掉那行编码声明（文件已经是 UTF-8）",
        "the file starts with a UTF-8 byte-order mark but declares the encoding {encoding}; Python refuses the "
        "contradiction. Delete the coding line (the file is UTF-8 already)",
    ),
    # -- learner loop: web page --
    "web.cancel.unknown": ("没有这个提交", "no such submission"),
    "web.cancel.not_yours": (
        "只有提交它的浏览器才能取消这个提交",
        "only the browser that sent this submission may cancel it",
    ),
    "web.cancel.finished": (
        "这个提交已经结束了，不能再取消",
        "this submission has ended already; there is nothing to cancel",
    ),
    # the page (web/templates/index.html, web/static/app.js): served to it as page.* and verdict.*
    "page.brand": ("练习判题", "Practice Judge"),
    "page.homeTitle": ("章节练习", "Chapter exercises"),
    "page.homeLead": (
        "在浏览器里直接写代码、跑测试；也可以在本地用 python practice/judge.py 判题。",
        "Write code and run the tests right in the browser; or judge locally with python practice/judge.py.",
    ),
    "page.progress": ("已通过 {solved}/{total} 道题", "{solved} of {total} exercises solved"),
    "page.progressCpu": ("（另有 {n} 道只通过了 CPU 部分）", " ({n} more passed on the CPU tier only)"),
    "page.needs": (
        "需要 {names}：本服务器未安装，不能判题",
        "needs {names}: not installed on this server, cannot be judged",
    ),
    "page.judgeAgain": ("重新判题", "Judge again"),
    "page.colId": ("#", "#"),
    "page.colTitle": ("题目", "Title"),
    "page.colDifficulty": ("难度", "Difficulty"),
    "page.colTags": ("标签", "Tags"),
    "page.colState": ("状态", "Status"),
    "page.tabStatement": ("题目", "Statement"),
    "page.tabTests": ("公开测试", "Public tests"),
    "page.tabProbes": ("探针", "Probes"),
    "page.tabHistory": ("提交记录", "Submissions"),
    "page.colWhen": ("时间", "When"),
    "page.colMode": ("方式", "Mode"),
    "page.colVerdict": ("结果", "Verdict"),
    "page.colPassed": ("通过", "Passed"),
    "page.historyEmpty": ("还没有提交。", "No submissions yet."),
    "page.reset": ("恢复起始代码", "Reset to starter"),
    "page.run": ("运行", "Run"),
    "page.submit": ("提交", "Submit"),
    "page.cancel": ("取消", "Cancel"),
    "page.keyHint": (
        "Ctrl/Cmd-Enter 运行公开测试 · Ctrl/Cmd-Shift-Enter 提交 · Tab 缩进 · 草稿自动保存在本浏览器",
        "Ctrl/Cmd-Enter runs the public tests · Ctrl/Cmd-Shift-Enter submits · Tab indents · "
        "drafts are kept in this browser",
    ),
    "page.noResult": ("还没有运行", "Not run yet"),
    "page.notFound": ("没有这道题", "No such exercise"),
    "page.backHome": ("返回题目列表", "Back to the exercises"),
    "page.loadCode": ("载入编辑器", "Load into editor"),
    "page.close": ("关闭", "Close"),
    "page.confirmReset": ("丢弃你的代码，换回起始代码？", "Discard your code and go back to the starter?"),
    "page.confirmLoad": (
        "编辑器里的代码改过了。用这次提交的代码替换它吗？（你现在的代码会丢失）",
        "The code in the editor has changed. Replace it with this submission's code? (your current code is lost)",
    ),
    "page.queued": ("排队中", "Queued"),
    "page.position": ("第 {n} 位", "position {n}"),
    "page.running": ("判题中…", "Judging…"),
    "page.runningCase": ("正在运行：", "Running: "),
    "page.runningHidden": ("正在运行隐藏测试", "Running the hidden tests"),
    "page.importing": ("正在导入你的文件", "Importing your file"),
    "page.cancelled": ("已取消", "Cancelled"),
    "page.cancelledLead": ("你取消了这次判题，没有结果。", "You cancelled this judgement; it has no result."),
    "page.tests": ("{n} 个测试", "{n} tests"),
    "page.passedOf": ("{p}/{t} 通过", "{p}/{t} passed"),
    "page.seconds": ("{s} 秒", "{s} s"),
    "page.modeRun": ("运行", "run"),
    "page.modeSubmit": ("提交", "submit"),
    "page.easy": ("简单", "easy"),
    "page.medium": ("中等", "medium"),
    "page.hard": ("困难", "hard"),
    "page.notStarted": ("未开始", "not started"),
    "page.attempted": ("尝试过", "attempted"),
    "page.solved": ("已通过", "solved"),
    "page.cpuOnly": ("CPU 部分已通过", "CPU tier passed"),
    "page.hidden": ("隐藏测试", "hidden test"),
    "page.yourOutput": ("你的代码的输出", "What your code printed"),
    "page.outputLines": ("{n} 行", "{n} lines"),
    "page.chapter": ("章节", "Chapter"),
    "page.wall": ("时间 {s} 秒", "{s} s wall"),
    "page.memory": ("内存 {m} MiB", "{m} MiB memory"),
    "page.failedToSend": ("没能提交：", "Could not submit: "),
    "page.offline": (
        "连不上判题服务器（它停了，或者网络断了）。",
        "Cannot reach the judge server (it stopped, or the network is down).",
    ),
    "page.retry": ("重试", "Retry"),
    "page.judgeStore": ("它的数据库暂时连不上", "its database is briefly unreachable"),
    "page.retryingIn": ("{s} 秒后自动重试……", "retrying in {s} s…"),
    "page.busyRetrying": (
        "判题服务暂时忙不过来（{what}），{s} 秒后自动重试……",
        "The judge is busy ({what}); retrying in {s} s…",
    ),
    "page.importError": ("导入错误", "Import error"),
    "page.publicPassed": ("公开测试通过：现在提交", "Public tests passed: now Submit"),
    "page.publicPassedLead": (
        "运行只跑公开测试。点“提交”，用隐藏测试判定你的解答。",
        "Run checks the public tests only. Submit to be judged on the hidden tests too.",
    ),
    "page.cpuPassed": ("CPU 部分通过", "CPU tier passed"),
    "page.cpuPassedLead": (
        "这里没有 GPU：GPU 部分的测试还没有判，这道题还不算通过。",
        "There is no GPU here: the GPU tier's tests are still to be judged, so the exercise is not solved yet.",
    ),
    "page.next": ("下一题", "Next exercise"),
    "page.allDone": ("全部练习都通过了，回到题目列表", "Every exercise solved: back to the list"),
    "page.timedOutHere": ("时间用完时正在运行这个测试", "this test was running when the time ran out"),
    "page.outcome.passed": ("通过", "passed"),
    "page.outcome.failed": ("失败", "failed"),
    "page.outcome.error": ("错误", "error"),
    "page.outcome.skipped": ("跳过", "skipped"),
    "page.hint": ("提示", "Hint"),
    # -- exercises and tiers --
    "summary.accepted_cpu_tier": (
        "CPU 部分通过；GPU 部分尚待评判",
        "accepted on the CPU tier; the GPU tier is still to be judged",
    ),
    "tiers.needs_gpu_runner": (
        "练习 {id} 需要 GPU 判题机：它的每个测试都属于 GPU 部分，而这里没有配置 GPU 判题机"
        "（PRACTICE_GPU_RUNNER），什么也没有评判。请在有 GPU 的机器上运行，或提交到有 GPU 的判题服务器",
        "exercise {id} needs a GPU runner: every one of its tests is in the GPU tier, and this judge has no GPU "
        "runner configured (PRACTICE_GPU_RUNNER), so nothing was judged. Run it on a GPU host, or submit it to a "
        "judge server that has one",
    ),
    "needs.missing": (
        "练习 {id} 需要 {names}，而这个判题环境没有安装：{install}",
        "exercise {id} needs {names}, which this judge does not have installed: {install}",
    ),
    "needs.install": ("pip install -e '.[{extras}]'", "pip install -e '.[{extras}]'"),
    "needs.server": (
        "这个判题服务器没有安装 {names}，不能评判练习 {id}；请在本机安装后用 python practice/judge.py {id} 判题，"
        "或换一个装有它的服务器",
        "this judge server does not have {names} installed, so it cannot judge exercise {id}; install it on your "
        "machine and judge with python practice/judge.py {id}, or use a server that has it",
    ),
    "list.needs": ("需要 {names}（未安装）", "needs {names} (not installed)"),
    "cli.tiers_to_do": (
        "还没判的部分：{tiers}（需要 CUDA GPU）：请在有 GPU 的机器上运行，或用 --server 提交到有 GPU 的判题服务器",
        "still to do: the {tiers} tier (needs a CUDA GPU): run it on a GPU host, or submit with --server "
        "to a judge server that has one",
    ),
    # -- the op trace of a failing public case (judge.report.optrace): feedback, never a verdict --
    "optrace.heading": (
        "算子轨迹（同一输入上参考解与你的算子执行的 aten 算子；只作提示，不影响判定）",
        "op trace (the aten ops the reference and your operator ran on the same input; feedback only, not "
        "part of the verdict)",
    ),
    "optrace.reference": ("参考解", "reference"),
    "optrace.yours": ("你的", "yours"),
    "optrace.differs": (
        "第 {step} 步不同：参考解执行 {theirs}；你的执行 {yours}",
        "step {step} differs: the reference runs {theirs}; yours runs {yours}",
    ),
    "optrace.writes": ("{call}（原地写入 {names}）", "{call}, which writes {names} in place"),
    "optrace.writes_none": ("{call}（不写算子的任何输入）", "{call}, which writes none of the operator's inputs"),
    "optrace.stops": (
        "你的算子在第 {step} 步之前就结束了；参考解接着执行 {theirs}",
        "your operator stops before step {step}; the reference goes on with {theirs}",
    ),
    "optrace.raised": (
        "你的算子在第 {step} 步之前抛出了 {raised}；参考解接着执行 {theirs}",
        "your operator raised {raised} before step {step}; the reference goes on with {theirs}",
    ),
    "optrace.not_entered": (
        "调用还没进入你的算子就抛出了 {raised}（算子没有注册，或名字不对？）；参考解的第一步是 {theirs}",
        "the call raised {raised} before reaching your operator (is it registered, under this name?); the "
        "reference's first step is {theirs}",
    ),
    "optrace.extra": (
        "第 {step} 步起你的算子多执行了 {yours}，参考解此时已结束",
        "from step {step} your operator runs more ({yours}) after the reference has finished",
    ),
    "optrace.same": (
        "两者执行的 aten 算子相同：差别在算子之外（schema、fake 实现、注册）或在数值上",
        "both ran the same aten ops: the difference lies outside them (the schema, the fake, the registration) "
        "or in the values",
    ),
    "optrace.raised_after_same": (
        "与参考解执行的 aten 算子相同，但你的算子随后抛出了 {raised}",
        "the same aten ops as the reference, but your operator then raised {raised}",
    ),
    # -- instructor: batch --
    # feedback/<student>.md and the LMS comments (judge.batch.feedback)
    "feedback.title": ("练习 {problem} 的判题反馈：{student}", "Feedback on exercise {problem}: {student}"),
    "feedback.verdict": ("结果", "Verdict"),
    "feedback.tests": (
        "测试：{passed}/{total} 通过，得分 {score:.0%}",
        "Tests: {passed}/{total} passed, score {score:.0%}",
    ),
    "feedback.not_judged": ("没有判题：你的文件未被接受", "Not judged: your file was not accepted"),
    "feedback.hidden": (
        "隐藏测试只显示它检查什么，不显示输入",
        "Hidden tests show what they check, never their inputs",
    ),
    "feedback.cases": ("各个测试", "Each test"),
    "feedback.hint": ("提示", "Hint"),
    "feedback.rejected": ("未判题", "rejected"),
    "feedback.points": ("分数：{points:g} / {max_points:g}", "Points: {points:g} / {max_points:g}"),
    "feedback.late": ("（迟交 {days} 天，已扣分）", " (late by {days} day(s), penalty applied)"),
    "feedback.unchanged": ("起始代码没有改动：得分为 0", "The starter was not changed: score 0"),
    "feedback.no_operators": (
        "你的文件没有定义本题的任何算子：得分为 0",
        "Your file defines none of the exercise's operators: score 0",
    ),
    # class-report.html (judge.batch.classreport): labels, filled by the template
    "classreport.title": ("班级报告：练习", "Class report: exercise"),
    "classreport.generated": ("生成于", "Generated"),
    "classreport.students": ("名学生", "students"),
    "classreport.accepted": ("通过", "accepted"),
    "classreport.mean": ("平均得分", "mean score"),
    "classreport.clusters_n": ("相似代码组", "similarity clusters"),
    "classreport.flagged_n": ("需要查看", "flagged"),
    "classreport.not_judged": ("未判题或判题故障", "Not judged or judge faults"),
    "classreport.verdicts": ("结果分布", "Verdicts"),
    "classreport.scores": ("得分分布", "Scores"),
    "classreport.score_axis": ("通过的测试比例", "share of tests passed"),
    "classreport.checks": ("各项检查的失败率", "Failure rate per check"),
    "classreport.checks_note": (
        "成功导入的提交（不含编译错误、被拒收的文件和判题故障）中没通过各项检查的比例；隐藏测试按提示所说的知识点归组。失败率最高的排在前面：全班没掌握的知识点。",
        "Share of the submissions that imported (compile errors, rejected files and judge faults left out) failing "
        "each check; hidden cases grouped by the lesson their hint names. Highest first: the lesson the class missed.",
    ),
    "classreport.check": ("检查", "check"),
    "classreport.failed": ("失败", "failed"),
    "classreport.rate": ("失败率", "failure rate"),
    "classreport.hidden": ("隐藏", "hidden"),
    "classreport.similarity": ("相似代码组", "Similarity clusters"),
    "classreport.similarity_note": (
        "统一变量名并去掉起始代码后几乎相同的代码（copydetect）。只是谈话的线索，不是证据。",
        "Near-identical code once names are normalised and the starter removed (copydetect). A lead for a "
        "conversation, not proof.",
    ),
    "classreport.max_sim": ("最高相似度", "highest pair"),
    "classreport.closest": ("最相似的一对", "closest pair"),
    "classreport.threshold": (
        "只列出相似度不低于 {value:.0%} 的一对：本题自己的 {solutions} 份正确解法两两之间，"
        "九成的相似度不超过 {independent:.0%}，门槛定在它之上（至少 80%）。",
        "Pairs at {value:.0%} or more are shown: nine in ten pairs of this exercise's own {solutions} correct "
        "solutions score at most {independent:.0%} between themselves, and the threshold sits above that (at least "
        "80%).",
    ),
    "classreport.flagged": ("需要人工查看的提交", "Flagged submissions"),
    "classreport.flagged_note": (
        "源代码触及判题程序或解释器的内部，或运行时发现篡改。标记从不改变判题结果。",
        "Source that reaches for the judge's or the interpreter's internals, or tampering found at run time. Flags "
        "never change a verdict.",
    ),
    "classreport.student": ("学生", "student"),
    "classreport.verdict": ("结果", "verdict"),
    "classreport.flags": ("标记", "flags"),
    "classreport.slowest": ("运行最慢的提交（代码自身的运行时间）", "Slowest submissions (their own run time)"),
    "classreport.seconds": ("秒", "seconds"),
    "classreport.reason": ("原因", "reason"),
    "classreport.none": ("无", "none"),
    "classreport.more_checks": ("其余检查", "more checks"),
    "classreport.roster": ("全部学生", "Every student"),
    "classreport.roster_note": (
        "点击列标题按该列排序。分数已扣除迟交的扣分。",
        "Click a column's heading to sort by it. Points are after any late penalty.",
    ),
    "classreport.name": ("姓名", "name"),
    "classreport.points": ("分数", "points"),
    "classreport.late": ("迟交", "late"),
    "classreport.tiers": ("已运行的层", "tiers"),
    "classreport.attempts": ("其他提交", "attempts"),
    "classreport.similar": ("相似于", "similar to"),
    "classreport.feedback": ("反馈", "feedback"),
    "classreport.pending": ("GPU 层尚待判题", "GPU tier still to be judged"),
    "classreport.pending_note": (
        "在这里运行过的层都通过了，但 GPU 层没有可用的运行器。请在配置了 GPU 运行器的地方重新判题。",
        "Accepted on the tiers that ran here; the GPU tier had no runner. Judge these again where a GPU runner is "
        "configured.",
    ),
    "gradescope.late": ("迟交 {days} 天", "late {days} day(s)"),
    # -- queue and operations --
    # -- GPU tier --
    "gpu.host_fault": (
        "GPU 判题机暂时不可用（不是你的代码的问题），请稍后重试：{runner}：{why}",
        "The GPU runner is unavailable (not a problem with your code); try again later: {runner}: {why}",
    ),
    # -- code health: front ends --
    "web.too_large": (
        "代码有 {size} 字节，第 {id} 题最多接受 {limit} 字节",
        "the code is {size} bytes; exercise {id} accepts at most {limit} bytes",
    ),
    "web.queue_full": ("判题队列已满，请过几秒再试", "the judging queue is full; try again in a few seconds"),
    "web.unavailable": (
        "判题服务暂时无法使用（{what}连不上），请过几秒再试",
        "the judge is briefly unavailable ({what} is unreachable); try again in a few seconds",
    ),
    "web.unavailable.database": ("数据库", "its database"),
    "web.unavailable.queue": ("队列", "its queue"),
    "web.unavailable.disk": ("磁盘", "its disk"),
    "web.learner_busy": (
        "你已有 {limit} 个提交在等待判题，请先等它们出结果",
        "you already have {limit} submissions waiting; wait for their verdicts first",
    ),
    "web.address_busy": (
        "来自你的地址的 {limit} 个提交正在等待判题，请先等它们出结果（保留 practice_learner cookie 的客户端单独计数）",
        "{limit} submissions from your address are waiting; wait for their verdicts first (a client that keeps "
        "the practice_learner cookie is counted on its own)",
    ),
    "web.no_submission": ("没有这个提交", "no such submission"),
}


def words(prefix: str, lang: Lang) -> dict[str, str]:
    """Every message under `prefix.` in one language, unformatted, keyed by the rest of its id: the labels a
    template fills itself (the class report's)."""
    side = 1 if lang == "en" else 0
    return {key[len(prefix) + 1 :]: texts[side] for key, texts in MESSAGES.items() if key.startswith(prefix + ".")}


def say(msg_id: str, **fields: object) -> Text:
    """The catalogue's message msg_id in both languages, with fields filled in.

    A field given as a Text fills each language with its own side (a hint inside a sentence)."""
    zh, en = MESSAGES[msg_id]
    return Text(zh=zh.format(**_side(fields, "zh")), en=en.format(**_side(fields, "en")))


def _side(fields: dict[str, object], lang: Lang) -> dict[str, object]:
    return {key: value.get(lang) if isinstance(value, Text) else value for key, value in fields.items()}
