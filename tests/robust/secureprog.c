/* SPDX-License-Identifier: MIT */
/*
 * secureprog - prints whether it runs in secure-execution mode and its
 * effective uid: a setuid-root copy run by another user prints
 * "AT_SECURE=1 euid=0".
 */
#include <stdio.h>
#include <sys/auxv.h>
#include <unistd.h>

int main(void)
{
	printf("AT_SECURE=%lu euid=%d\n", getauxval(AT_SECURE), (int)geteuid());
	return 0;
}
