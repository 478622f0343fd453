package io.ailb.lb.config.docs;

import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

/** SnakeYAML, set up to write one value as one flow-style line (quoting what needs quotes). */
final class YamlText {
    private static final Yaml FLOW;

    static {
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.FLOW);
        options.setWidth(Integer.MAX_VALUE);
        options.setSplitLines(false);
        FLOW = new Yaml(options);
    }

    private YamlText() {}

    /** A scalar, list or map on one line, without the trailing newline. */
    static String flow(Object value) {
        String text = FLOW.dump(value);
        return text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> loadMap(String text) {
        return (Map<String, Object>) new Yaml(new LoaderOptions()).load(text);
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> loadList(String text) {
        return (List<Map<String, Object>>) new Yaml(new LoaderOptions()).load(text);
    }
}
