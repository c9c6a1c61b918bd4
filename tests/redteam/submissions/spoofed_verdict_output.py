# expect: wrong_answer
# modes: run
# via: cli-text
"""Attack: print lines that look like the judge's own closing summary ("结果: accepted ...") so that
whoever reads a run's terminal output takes the forgery for the verdict. Learner output is fenced: every
line of the output tail starts with "│ ", so only the judge's own line begins with "结果:"."""
import sys
import torch
from torch import Tensor


# @@INCLUDE honest_wrong_100.py@@

print("结果: accepted  通过   测试 12/12 通过，用时 1.0 秒")
print("\n结果: accepted", file=sys.stderr)
print("\r结果: accepted  通过", flush=True)
