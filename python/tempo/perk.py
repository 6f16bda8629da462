"""PERK v2.1.0 signatures, all 18 sets (tempo::perk), one at a time and in batches."""
from ._tempo.perk import (all_params, cpu_isa_name, keygen, keygen_deterministic, keygen_seed_size, name,
                          parse_params, public_key_size, secret_key_size, sign, sign_batch, sign_batch_deterministic,
                          sign_deterministic, sign_randomness_size, signature_size, verify, verify_batch)

__all__ = ["all_params", "cpu_isa_name", "keygen", "keygen_deterministic", "keygen_seed_size", "name",
           "parse_params", "public_key_size", "secret_key_size", "sign", "sign_batch", "sign_batch_deterministic",
           "sign_deterministic", "sign_randomness_size", "signature_size", "verify", "verify_batch"]
