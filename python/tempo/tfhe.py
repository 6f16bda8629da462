"""Binary TFHE/FHEW gates with bootstrapping, in batches (tempo::tfhe)."""
from ._tempo.tfhe import (Keys, decrypt_bit, decrypt_bits, encrypt_bit, encrypt_bit_deterministic, encrypt_bits,
                          encrypt_bits_deterministic, eval_bootstraps, eval_gates, eval_nots, keygen,
                          keygen_deterministic)

__all__ = ["Keys", "decrypt_bit", "decrypt_bits", "encrypt_bit", "encrypt_bit_deterministic", "encrypt_bits",
           "encrypt_bits_deterministic", "eval_bootstraps", "eval_gates", "eval_nots", "keygen",
           "keygen_deterministic"]
