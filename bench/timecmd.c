/* SPDX-License-Identifier: MIT */
/*
 * bench_timecmd - runs a command and prints its wall-clock and CPU time.
 *
 *   bench_timecmd [-i INPUT] [-o FILE] -- COMMAND [ARGS...]
 *
 * Prints "wall_s W cpu_s C" on stdout; the command's own stdout
 * goes to /dev/null (and its stdin comes from INPUT, else /dev/null), so
 * that nothing but its run time reaches the benchmark.  Its stderr is kept:
 * an error must be seen.  With -o, the times go to FILE instead and the
 * command keeps this one's stdin and stdout (a terminal: apiprof-top's
 * live view).  Exits with the command's status.
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

static int redirect(const char *input)
{
	int in = open(input, O_RDONLY), out = open("/dev/null", O_WRONLY);

	return in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *input = "/dev/null", *report = NULL;
	FILE *rep = stdout;
	struct timespec t0, t1;
	struct rusage ru;
	int opt, status;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+i:o:")) != -1) {
		if (opt == 'i')
			input = optarg;
		else if (opt == 'o')
			report = optarg;
		else
			return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: bench_timecmd [-i INPUT] [-o FILE] -- COMMAND [ARGS...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		if (report == NULL && redirect(input) != 0) {
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
	if (report != NULL && (rep = fopen(report, "w")) == NULL) {
		perror(report);
		return 1;
	}
	fprintf(rep, "wall_s %.6f cpu_s %.6f\n",
	        (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	        secs(&ru.ru_utime) + secs(&ru.ru_stime));
	if (fclose(rep) != 0) {
		perror(report ? report : "stdout");
		return 1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
