"""Names of a problem's test tiers (CPU, GPU) and why a tier did not run: shared by the runners and the checker."""

from judge.report.feedback import msg

CPU, GPU = "cpu", "gpu"
TIERS = (CPU, GPU)
RAN, SKIPPED = "ran", "skipped"
NEEDS_GPU = msg(
    "这一部分需要 CUDA GPU：请在有 GPU 的机器上运行，或提交到有 GPU 的判题服务器",
    "this part needs a CUDA GPU: run it on a GPU host, or submit to a judge server that has one",
)
