/** What both lb_type cluster policies share: the header the chosen service is written to. */
package io.ailb.lb.policy.clusterheader;
