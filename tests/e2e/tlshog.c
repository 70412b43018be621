/* SPDX-License-Identifier: MIT */
/* tlshog - HOG bytes of initial-exec TLS, which a dlopen() must find in
 * glibc's static reserve (late.c). */
__thread char tlshog[HOG] __attribute__((tls_model("initial-exec")));

char *tlshog_get(void)
{
	return tlshog;
}
