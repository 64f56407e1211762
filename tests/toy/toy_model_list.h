/* toy_model_list.h - force-included into the stallsim_toy build: adds the toy model as
 * one more row of the model list, the way a new model is added (see README). */
#define SS_EXTRA_MODEL_LIST(X) X(TOY, "toy", ss_model_toy)
