/* SPDX-License-Identifier: MIT */
/* treef.c - see treelib.h: tf_spawn, a library function that forks. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "treelib.h"

int tf_spawn(int n, int how)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0 && how == TF_EXIT_INSIDE) {
		for (int i = 0; i < n; i++)
			tr_close();
		exit(0);
	}
	if (pid == 0)
		return 0; /* TF_RETURN: the caller goes on in the child */
	while (waitpid(pid, &status, 0) < 0)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? pid : -1;
}
