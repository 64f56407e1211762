/* ss_version.h - the stallsim version string. */
#ifndef SS_VERSION_H
#define SS_VERSION_H
#define SS_VERSION "1.0.0"
#endif
