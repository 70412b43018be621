/* SPDX-License-Identifier: MIT */
/*
 * bench_timecmd - runs a command and prints its wall-clock and CPU time.
 *
 *   bench_timecmd [-i INPUT] -- COMMAND [ARGS...]
 *
 * Prints "wall_s W cpu_s C" on stdout; the command's own stdout
 * goes to /dev/null (and its stdin comes from INPUT, else /dev/null), so
 * that nothing but its run time reaches the benchmark.  Its stderr is kept:
 * an error must be seen.  Exits with the command's status.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double secs(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	const char *input = "/dev/null";
	struct timespec t0, t1;
	struct rusage ru;
	int opt, status;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+i:")) != -1) {
		if (opt != 'i')
			return 2;
		input = optarg;
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: bench_timecmd [-i INPUT] -- COMMAND [ARGS...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		int in = open(input, O_RDONLY), out = open("/dev/null", O_WRONLY);

		if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0) {
			perror(input);
			_exit(127);
		}
		execvp(argv[optind], &argv[optind]);
		fprintf(stderr, "bench_timecmd: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("wait4");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("wall_s %.6f cpu_s %.6f\n",
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	       secs(&ru.ru_utime) + secs(&ru.ru_stime));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
