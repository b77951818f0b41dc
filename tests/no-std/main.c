/* Runs one of the no_std check libraries: 0 is success, any other value is
 * the number of the check that failed. */
#include <stdio.h>

unsigned fsm_no_std_check(void);

int main(void) {
    unsigned failed = fsm_no_std_check();
    if (failed != 0) {
        fprintf(stderr, "no_std check %u failed\n", failed);
        return 1;
    }
    puts("ok");
    return 0;
}
