/* getrandom(2) that gives the same bytes in every process, preloaded (LD_PRELOAD) into the
 * test command's fuzz smoke (scripts/fuzz.sh smoke): Rust's HashMap keys (RandomState, as in
 * the zip crate's index of an archive's files) come from getrandom, and coverage-guided
 * fuzzing follows the branches their hashes take. With the same keys, the same libFuzzer seed
 * and no address randomisation, the smoke tries the same inputs on every run. */
#include <stddef.h>
#include <sys/types.h>

ssize_t getrandom(void *buf, size_t len, unsigned int flags) {
  unsigned char *bytes = buf;
  (void)flags;
  for (size_t i = 0; i < len; i++) bytes[i] = (unsigned char)(i * 131 + 7);
  return (ssize_t)len;
}
