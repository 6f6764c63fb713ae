/*
 * A stand-in for Windows' bcryptprimitives.dll, built only to run the Windows tests under Wine
 * (scripts/wine/run.sh); it is never shipped.
 *
 * Why: Go 1.26's runtime takes its random bytes from bcryptprimitives.dll's ProcessPrng, which every
 * supported Windows has and Wine 8.0 (Debian 12's wine64) lacks, so every Go 1.26 program dies at start
 * under Wine with "bcryptprimitives.dll not found". This DLL exports ProcessPrng and answers it from
 * BCryptGenRandom, which Wine does implement (on the host's random source). Go loads the DLL from
 * system32 only, so run.sh copies it into the Wine prefix's system32.
 */
#include <windows.h>
#include <bcrypt.h>

/* ProcessPrng fills data with len random bytes and returns TRUE, as the real one does (it never fails
 * on Windows; here a failing BCryptGenRandom returns FALSE and Go's runtime aborts, which is right). */
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
    if (BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0) return FALSE;
    data += n;
    len -= n;
  }
  return TRUE;
}
