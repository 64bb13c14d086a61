# verify/verify.mk — make verify: the lock, fastbin and give-back protocols
# model-checked with spin (verify/models/, docs/verification.md).
#
#   make verify       generate (spin -a), compile (gcc pan.c) and run every
#                     verifier in verify/models/models.list, under
#                     $(BUILD)/verify/<name>/; fails if a correct model has
#                     an error or a seeded-bug variant is not rejected.
#   VERIFY_ONLY=fork  only the verifiers whose name contains "fork".
# The verifiers always run: a model's state space is the product, there is
# no partial result to keep up to date.

.PHONY: verify verify-deps
# spin (and gcc for its verifiers) installed when missing, as make check does
verify-deps:
	@tools/deps.sh verify
verify: verify-deps
	@verify/run-models.sh $(BUILD)/verify
