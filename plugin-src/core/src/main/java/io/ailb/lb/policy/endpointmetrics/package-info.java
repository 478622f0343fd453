/**
 * {@code endpoint_metrics} (aliases {@code least_busy}, {@code metrics_based}): chooses by the engines' own load
 * metrics in this VM, without Redis; the metrics themselves are read by {@code io.ailb.lb.metrics}.
 */
package io.ailb.lb.policy.endpointmetrics;
