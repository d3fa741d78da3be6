/* A second CUPTI subscriber, preloaded into loupe-run (LD_PRELOAD) by run_all.sh: it subscribes
 * when the library loads and holds the subscription, as Nsight Systems or Compute would, so
 * Loupe's CUPTI collector gets CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED and the run
 * takes its CUDA-events fallback (docs/profiler.md, "CUDA events").
 * Built by prepare.sh against the CUDA toolkit's cupti.h and libcupti. */
#include <cupti.h>
#include <stdio.h>

static CUpti_SubscriberHandle holder;

static void CUPTIAPI ignore(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                            const void *data) {
  (void)userdata, (void)domain, (void)id, (void)data;
}

__attribute__((constructor)) static void holdCupti(void) {
  CUptiResult result = cuptiSubscribe(&holder, (CUpti_CallbackFunc)ignore, NULL);
  fprintf(stderr, "cupti_holder: cuptiSubscribe returned %d (%s)\n", (int)result,
          result == CUPTI_SUCCESS ? "holding CUPTI" : "not holding it");
}
