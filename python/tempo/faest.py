"""FAEST-128f / FAEST-128s signatures (tempo::faest), one at a time and in batches."""
from ._tempo.faest import (all_params, cpu_isa_name, keygen, name, parse_params, public_key_size, secret_key_size,
                           sign, sign_batch, sign_batch_deterministic, sign_deterministic, signature_size, verify,
                           verify_batch)

__all__ = ["all_params", "cpu_isa_name", "keygen", "name", "parse_params", "public_key_size", "secret_key_size",
           "sign", "sign_batch", "sign_batch_deterministic", "sign_deterministic", "signature_size", "verify",
           "verify_batch"]
