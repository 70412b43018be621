// SPDX-License-Identifier: MIT
/*
 * pthread_prog K R - a known number of lock calls in T = 4 threads, and a
 * condition-variable ping-pong whose waits are exact.
 *
 * Each worker, K times: mutex lock/unlock, trylock on the mutex it holds
 * (EBUSY) and on its own free one (success, then unlock), rwlock rdlock/unlock and
 * wrlock/unlock, spin lock/unlock; with a far deadline, timedlock and
 * timedrdlock once.  All of them contend, so lock times are visible.
 *
 * Ping-pong, R rounds: main and a partner hand a turn back and forth
 * under one mutex, each releasing it only inside pthread_cond_wait.  The
 * partner can therefore only run while main waits and vice versa: main
 * waits R times, the partner R - 1 times (the turn is already its own in
 * round 1), and each round signals twice.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define T 4

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t spin;
static long k_iter, counter;

static struct timespec far_deadline(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 3600;
	return ts;
}

static void *worker(void *arg)
{
	pthread_mutex_t own = PTHREAD_MUTEX_INITIALIZER;
	struct timespec dl = far_deadline();
	int busy = 0;

	for (long i = 0; i < k_iter; i++) {
		pthread_mutex_lock(&mu);
		counter++;
		busy += pthread_mutex_trylock(&mu) == EBUSY;
		pthread_mutex_unlock(&mu);
		if (pthread_mutex_trylock(&own) == 0) /* always free: the thread's own */
			pthread_mutex_unlock(&own);
		pthread_rwlock_rdlock(&rw);
		pthread_rwlock_unlock(&rw);
		pthread_rwlock_wrlock(&rw);
		pthread_rwlock_unlock(&rw);
		pthread_spin_lock(&spin);
		pthread_spin_unlock(&spin);
	}
	pthread_mutex_timedlock(&mu, &dl);
	pthread_mutex_unlock(&mu);
	pthread_rwlock_timedrdlock(&rw, &dl);
	pthread_rwlock_unlock(&rw);
	*(int *)arg = busy;
	return NULL;
}

static pthread_mutex_t pm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pc = PTHREAD_COND_INITIALIZER;
static int turn; /* 0: main, 1: partner */
static long rounds;

static void *partner(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pm);
	for (long r = 0; r < rounds; r++) {
		while (turn != 1)
			pthread_cond_wait(&pc, &pm);
		turn = 0;
		pthread_cond_signal(&pc);
	}
	pthread_mutex_unlock(&pm);
	return NULL;
}

static void ping_pong(void)
{
	pthread_t t;

	pthread_mutex_lock(&pm);
	pthread_create(&t, NULL, partner, NULL);
	for (long r = 0; r < rounds; r++) {
		turn = 1;
		pthread_cond_signal(&pc);
		while (turn != 0)
			pthread_cond_wait(&pc, &pm);
	}
	pthread_mutex_unlock(&pm);
	pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
	pthread_t t[T];
	int busy[T];

	if (argc != 3)
		return 2;
	k_iter = atol(argv[1]);
	rounds = atol(argv[2]);
	pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
	for (int i = 0; i < T; i++)
		pthread_create(&t[i], NULL, worker, &busy[i]);
	for (int i = 0; i < T; i++)
		pthread_join(t[i], NULL);
	ping_pong();
	pthread_spin_destroy(&spin);
	printf("counter %ld busy %d %d %d %d\n", counter, busy[0], busy[1], busy[2], busy[3]);
	return 0;
}
