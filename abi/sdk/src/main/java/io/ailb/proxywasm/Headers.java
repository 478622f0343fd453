package io.ailb.proxywasm;

import io.ailb.proxywasm.bindings.MapType;
import io.ailb.proxywasm.internal.Vm;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One header map of the current stream (or of the HTTP-call response being delivered). Names are lower-case;
 * pseudo-headers ({@code :path}, {@code :status}) are included. Maps are read-only once the stream has moved past
 * them (e.g. request headers after {@link Stream#continueRequest}, everything in {@link HttpContext#onLog}).
 */
public final class Headers {
    private static final Headers REQUEST = new Headers(MapType.HTTP_REQUEST_HEADERS);
    private static final Headers REQUEST_TRAILERS = new Headers(MapType.HTTP_REQUEST_TRAILERS);
    private static final Headers RESPONSE = new Headers(MapType.HTTP_RESPONSE_HEADERS);
    private static final Headers RESPONSE_TRAILERS = new Headers(MapType.HTTP_RESPONSE_TRAILERS);
    private static final Headers HTTP_CALL_RESPONSE = new Headers(MapType.HTTP_CALL_RESPONSE_HEADERS);
    private static final Headers HTTP_CALL_RESPONSE_TRAILERS = new Headers(MapType.HTTP_CALL_RESPONSE_TRAILERS);

    private final int mapType;

    private Headers(int mapType) {
        this.mapType = mapType;
    }

    public static Headers request() {
        return REQUEST;
    }

    public static Headers requestTrailers() {
        return REQUEST_TRAILERS;
    }

    public static Headers response() {
        return RESPONSE;
    }

    public static Headers responseTrailers() {
        return RESPONSE_TRAILERS;
    }

    /** Only during an {@link HttpCallCallback}; the SDK already hands them over in {@link HttpCallResponse}. */
    public static Headers httpCallResponse() {
        return HTTP_CALL_RESPONSE;
    }

    public static Headers httpCallResponseTrailers() {
        return HTTP_CALL_RESPONSE_TRAILERS;
    }

    /** The {@link MapType} code. */
    public int mapType() {
        return mapType;
    }

    public Optional<String> get(String name) {
        return Optional.ofNullable(Vm.abi().getHeaderMapValue(mapType, name));
    }

    /** All entries in the host's order, duplicates kept. */
    public List<Map.Entry<String, String>> pairs() {
        return Vm.abi().getHeaderMapPairs(mapType);
    }

    /** Replaces the whole map. */
    public void setPairs(List<Map.Entry<String, String>> pairs) {
        Vm.abi().setHeaderMapPairs(mapType, pairs);
    }

    /** Adds a value, keeping existing ones with the same name. */
    public void add(String name, String value) {
        Vm.abi().addHeaderMapValue(mapType, name, value);
    }

    /** Sets the header to exactly this value (adds it when absent). */
    public void replace(String name, String value) {
        Vm.abi().replaceHeaderMapValue(mapType, name, value);
    }

    public void remove(String name) {
        Vm.abi().removeHeaderMapValue(mapType, name);
    }
}
