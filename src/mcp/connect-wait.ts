/** How long list_callable_tools and execute_program wait for servers still on their first attempt. */
export const INITIAL_CONNECT_WAIT_MS = 5000
