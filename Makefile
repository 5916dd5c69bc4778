# The two commands of README.md. Both set everything up first and can be re-run at any time.
.PHONY: demo test test-loaded setup

setup:
	bash scripts/setup.sh

# Preset A (the default): anchors, hybrid retrieval, the gate's decision and reason, the token spend.
demo: setup
	.venv/bin/anchorgate ask "What does the pass statement do?" --preset A

test: setup
	.venv/bin/ruff check anchorgate graph studio agents tools prompts eval tests bench
	bash scripts/typecheck.sh
	.venv/bin/pytest -q -p no:cacheprovider

# The end-to-end tests beside a CPU hog (one busy process per core): green on a busy machine too.
test-loaded: setup
	bash scripts/test_under_load.sh
