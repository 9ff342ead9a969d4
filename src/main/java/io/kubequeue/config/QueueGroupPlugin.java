package io.kubequeue.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Where quota groups come from (seed: env var {@code QueueGroupPlugin}, "切换Quota资源类型"). */
public enum QueueGroupPlugin {
    /** Groups are the nodes of the ElasticQuotaTree in {@code kube-system}. The default. */
    ELASTICQUOTA,
    /** Each namespace is a group, limited by its ResourceQuotas. */
    RESOURCEQUOTA;

    /** The value as written in the env var, e.g. {@code elasticquota}. */
    public String value() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The valid values, comma separated, for error messages. */
    public static String validValues() {
        return Arrays.stream(values()).map(QueueGroupPlugin::value).collect(Collectors.joining(", "));
    }
}
